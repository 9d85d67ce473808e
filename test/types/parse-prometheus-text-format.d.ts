/** Typing of parse-prometheus-text-format (the tests' Prometheus text parser; it ships none). */
declare module "parse-prometheus-text-format" {
  /** One sample: its value as written and its labels. */
  export interface PrometheusSample {
    readonly value: string;
    readonly labels?: Readonly<Record<string, string>>;
  }
  /** One metric family. */
  export interface PrometheusFamily {
    readonly name: string;
    readonly help: string;
    readonly type: string;
    readonly metrics: readonly PrometheusSample[];
  }
  function parsePrometheusTextFormat(text: string): PrometheusFamily[];
  export default parsePrometheusTextFormat;
}

import { BarChart, FunnelChart, LineChart } from "echarts/charts";
import { GridComponent, LegendComponent, TitleComponent } from "echarts/components";
import { type EChartsCoreOption, init, use } from "echarts/core";
import { SVGRenderer } from "echarts/renderers";

/**
 * Charts drawn on the server by ECharts' SVG renderer (`ssr: true`): the page carries each chart as
 * an inline `<svg>`, so it needs no script, font or network when it is viewed. Only the chart types
 * and components the page uses are registered.
 */
use([BarChart, LineChart, FunnelChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer]);

/** Size of a chart in CSS pixels. */
export interface ChartSize {
  readonly width: number;
  readonly height: number;
}

/** The size charts get unless they ask for another. */
export const DEFAULT_CHART_SIZE: ChartSize = { width: 1000, height: 340 };

/**
 * Colours of the page's charts, in series order: eighteen distinct ones (Tableau's 10 and a few
 * more), so an account's streams each get their own instead of the palette repeating.
 */
export const CHART_COLORS = [
  "#4e79a7",
  "#f28e2b",
  "#59a14f",
  "#e15759",
  "#76b7b2",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
  "#1f77b4",
  "#98df8a",
  "#c5b0d5",
  "#8c564b",
  "#17becf",
  "#bcbd22",
  "#aec7e8",
  "#ffbb78",
] as const;

/**
 * Renders one ECharts option to an SVG string. Animation is off (a static picture) and the text
 * uses the viewer's sans-serif font, so nothing is fetched.
 */
export function renderSvgChart(option: EChartsCoreOption, size: ChartSize = DEFAULT_CHART_SIZE): string {
  const chart = init(null, null, { renderer: "svg", ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption({
      animation: false,
      color: [...CHART_COLORS],
      textStyle: { fontFamily: "sans-serif" },
      ...option,
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/**
 * The loader's layers and the direction of its imports (issue 34 item 2), checked by `make lint`
 * (`npm run lint:layers`). Type-only imports count: a type pulled from a higher layer ties the
 * lower one to it as much as a value does. From the bottom up:
 *
 *   core        src/*.ts (errors, log, ports, secrets, days, exit codes), but the config's files
 *   platform    src/platform   the platform's contract: catalogue, row schemas, revisions
 *   api         src/api        HTTP client, pagination, retries, rate budgets
 *   warehouse   src/warehouse  Postgres: connection, landing tables, load, state, locks, admin
 *   streams     src/streams    each stream's declaration: endpoint, schema, landing table
 *   config      src/config*.ts the config file's schema (it names the streams) and its loading
 *   transform   src/transform  dbt: build, test, publish
 *   pipeline    src/pipeline   plan, extract, hold, load: a run
 *   distributed, monitoring, report, check, demo   features over a run
 *   cli         src/cli        commands
 *
 * A layer imports only from the layers below it; the sandbox (src/sandbox) imports only core and
 * platform, and nothing but the CLI's `sandbox` command and the demo imports the sandbox. Any
 * import against these rules fails the lint (test/unit/layers.test.ts shows it on fixtures).
 */
/** The config's files, at the root of src but a layer above the streams, whose names it checks. */
const CONFIG = "^src/(config|config-file-schema|config-derive)\\.ts$";

const LAYERS = [
  ["core", "^src/[^/]+\\.ts$", CONFIG],
  ["platform", "^src/platform/"],
  ["api", "^src/api/"],
  ["warehouse", "^src/warehouse/"],
  ["streams", "^src/streams/"],
  ["config", CONFIG],
  ["transform", "^src/transform/"],
  ["pipeline", "^src/pipeline/"],
  ["features", "^src/(distributed|monitoring|report|check|demo)/"],
  ["cli", "^src/cli/"],
];

/** For each layer: importing anything of a layer above it is forbidden. */
const upward = LAYERS.slice(0, -1).map(([name, path, pathNot], index) => ({
  name: `no-upward-from-${name}`,
  comment: `${name} imports only from the layers below it (see the top of .dependency-cruiser.cjs)`,
  severity: "error",
  from: pathNot === undefined ? { path } : { path, pathNot },
  to: { path: LAYERS.slice(index + 1).map(([, above]) => above) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no import cycle, type-only ones included",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...upward,
    {
      name: "sandbox-on-contract-only",
      comment: "the sandbox imports only core and the platform's contract",
      severity: "error",
      from: { path: "^src/sandbox/" },
      to: { path: "^src/", pathNot: ["^src/sandbox/", "^src/platform/", "^src/[^/]+\\.ts$"] },
    },
    {
      name: "sandbox-without-config",
      comment: "the sandbox has its own options, never the loader's config",
      severity: "error",
      from: { path: "^src/sandbox/" },
      to: { path: CONFIG },
    },
    {
      name: "product-without-sandbox",
      comment: "only the CLI's sandbox command and the demo reach the sandbox",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/sandbox/", "^src/cli/", "^src/demo/"] },
      to: { path: "^src/sandbox/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};

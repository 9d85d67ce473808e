/**
 * The loader's layers and the direction of its imports (issue 34 item 2), checked by `make lint`
 * (`npm run lint:layers`). Type-only imports count: a type pulled from a higher layer ties the
 * lower one to it as much as a value does. From the bottom up:
 *
 *   core        src/core       errors, log, ports, secrets, days, exit codes, retries
 *   platform    src/platform   the platform's contract: catalogue, row schemas, revisions
 *   api         src/api        HTTP client, pagination, retries, rate budgets
 *   warehouse   src/warehouse  Postgres, in layers of its own: connection (pool, embedded server,
 *                              migrations, landing tables' model) -> state (runs, windows, rejects)
 *                              -> coordination (locks) -> load (COPY, merge, partitions) -> admin
 *   streams     src/streams    each stream's declaration: endpoint, schema, landing table
 *   config      src/config     the config file's schema (it names the streams) and its loading
 *   transform   src/transform  dbt: build, test, publish
 *   pipeline    src/pipeline   a run, in layers of its own: clients (API clients, revisions, key
 *                              budgets) -> extract (read, parse, platform clock) -> holds -> plan
 *                              -> run (the orchestration)
 *   distributed, monitoring, report, check, demo   features over a run
 *   cli         src/cli        commands
 *
 * A layer imports only from the layers below it; the sandbox (src/sandbox) imports only core and
 * platform, and nothing but the CLI's `sandbox` command and the demo imports the sandbox. Any
 * import against these rules fails the lint (test/unit/layers.test.ts shows it on fixtures).
 */
const LAYERS = [
  ["core", "^src/core/"],
  ["platform", "^src/platform/"],
  ["api", "^src/api/"],
  ["warehouse", "^src/warehouse/"],
  ["streams", "^src/streams/"],
  ["config", "^src/config/"],
  ["transform", "^src/transform/"],
  ["pipeline", "^src/pipeline/"],
  ["features", "^src/(distributed|monitoring|report|check|demo)/"],
  ["cli", "^src/cli/"],
];

/** The warehouse's and the pipeline's own layers, from the bottom up (folders of each). */
const SUBLAYERS = {
  warehouse: ["connection", "state", "coordination", "load", "admin"],
  pipeline: ["clients", "extract", "holds", "plan", "run"],
};

/** For each layer of `layers` ([name, path]): importing anything of a layer above it is forbidden. */
function upwardRules(layers) {
  return layers.slice(0, -1).map(([name, path], index) => ({
    name: `no-upward-from-${name}`,
    comment: `${name} imports only from the layers below it (see the top of .dependency-cruiser.cjs)`,
    severity: "error",
    from: { path },
    to: { path: layers.slice(index + 1).map(([, above]) => above) },
  }));
}

const upward = [
  ...upwardRules(LAYERS),
  ...Object.entries(SUBLAYERS).flatMap(([parent, folders]) =>
    upwardRules(folders.map((folder) => [`${parent}/${folder}`, `^src/${parent}/${folder}/`])),
  ),
];

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
      to: { path: "^src/", pathNot: ["^src/sandbox/", "^src/platform/", "^src/core/"] },
    },
    {
      name: "sandbox-without-config",
      comment: "the sandbox has its own options, never the loader's config",
      severity: "error",
      from: { path: "^src/sandbox/" },
      to: { path: "^src/config/" },
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

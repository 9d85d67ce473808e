/**
 * The loader's layers and the direction of its imports (issue 34 item 2), checked by `make lint`
 * (`npm run lint:layers`). Type-only imports count: a type pulled from a higher layer ties the
 * lower one to it as much as a value does. From the bottom up:
 *
 *   platform    packages/platform  the platform's contract (npm workspace @telecom-etl/platform):
 *                              catalogue, row schemas, revisions, exact JSON numbers; imports
 *                              nothing of ours
 *   core        src/core       errors, log, ports, secrets, days, exit codes, retries
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
 * A layer imports only from the layers below it; the sandbox (packages/sandbox, the workspace
 * @telecom-etl/sandbox) imports only the platform, and nothing of the loader (src/) but the CLI's
 * `sandbox` command and the demo imports the sandbox. Imports of `@telecom-etl/x` resolve to
 * packages/x/src through tsconfig.json's `paths`. Any
 * import against these rules fails the lint (test/unit/layers.test.ts shows it on fixtures).
 */
const LAYERS = [
  ["platform", "^packages/platform/"],
  ["core", "^src/core/"],
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
      from: { path: "^(src|packages)/" },
      to: { circular: true },
    },
    ...upward,
    {
      name: "platform-on-nothing-of-ours",
      comment: "the platform's contract imports nothing of the loader or the sandbox (zod only)",
      severity: "error",
      from: { path: "^packages/platform/" },
      to: { path: "^(src|packages)/", pathNot: ["^packages/platform/"] },
    },
    {
      name: "sandbox-on-contract-only",
      comment: "the sandbox imports only the platform's contract: nothing of the loader (src/)",
      severity: "error",
      from: { path: "^packages/sandbox/" },
      to: { path: "^(src|packages)/", pathNot: ["^packages/sandbox/", "^packages/platform/"] },
    },
    {
      name: "product-without-sandbox",
      comment: "only the CLI's sandbox command (loading it lazily, sandbox-module.ts) and the demo reach the sandbox",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/cli/sandbox-(module|command)\\.ts$", "^src/demo/"] },
      to: { path: "^packages/sandbox/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};

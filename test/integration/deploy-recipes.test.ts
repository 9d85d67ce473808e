import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

/**
 * The environment variables the loader reads, found in its source text (not in a list kept by
 * hand): `env.NAME`, `env["NAME"]`, and constants naming one (`…_ENV = "NAME"`).
 */
function variablesTheLoaderReads(): Set<string> {
  const names = new Set<string>();
  const files = sourceFiles(path.join(ROOT, "src")).filter(
    (f) => !f.includes(`${path.sep}sandbox${path.sep}`),
  );
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\benv\[["']([A-Z][A-Z0-9_]+)["']\]/g)) names.add(m[1]!);
    for (const m of text.matchAll(/_ENV = "([A-Z][A-Z0-9_]+)"/g)) names.add(m[1]!);
  }
  return names;
}

interface ComposeService {
  image?: string;
  build?: unknown;
  profiles?: string[];
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] };
}

const compose = parse(read("docker-compose.yml")) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
const loader = compose.services.loader!;
/** `${NAME:-default}` in a compose value: the default, else the name's value in .env.example. */
const envExample = Object.fromEntries(
  read(".env.example")
    .split("\n")
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
const interpolate = (value: string) =>
  value.replace(/\$\{([A-Z_]+)(?::-([^}]*))?(?::\?[^}]*)?\}/g, (_m, name: string, fallback?: string) =>
    envExample[name] ? envExample[name]! : (fallback ?? ""),
  );

describe("docker-compose.yml", () => {
  it("passes the loader only variables the loader reads, and every key the mounted config names", () => {
    const reads = variablesTheLoaderReads();
    const mount = (loader.volumes ?? [])
      .map(interpolate)
      .find((v) => v.includes(":/config/telecom-etl.yaml"))!;
    const configFile = path.join(ROOT, mount.split(":")[0]!);
    expect(existsSync(configFile) && statSync(configFile).isFile(), `${configFile} must be a file`).toBe(
      true,
    );
    expect(loader.environment?.TELECOM_ETL_CONFIG).toBe("/config/telecom-etl.yaml");
    const keyNames = (
      parse(readFileSync(configFile, "utf8")) as { accounts: { api_key_env: string }[] }
    ).accounts.map((a) => a.api_key_env);
    const passed = Object.keys(loader.environment ?? {});
    const unknown = passed.filter((name) => !reads.has(name) && !keyNames.includes(name));
    expect(unknown, "variables no code reads").toEqual([]);
    for (const key of keyNames) expect(passed).toContain(key);
    expect(passed).toEqual(expect.arrayContaining(["DATABASE_URL", "TELECOM_ETL_BI_READER_PASSWORD"]));
    expect(reads.has("DATABASE_URL") && reads.has("TELECOM_ETL_BI_READER_PASSWORD")).toBe(true);
  });

  it("every variable it interpolates is in .env.example", () => {
    const used = new Set([...read("docker-compose.yml").matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!));
    const documented = new Set([...read(".env.example").matchAll(/^#? ?([A-Z_]+)=/gm)].map((m) => m[1]!));
    expect([...used].filter((name) => !documented.has(name))).toEqual([]);
  });

  it("a Postgres with a healthcheck and a volume; the loader runs nightly once it is healthy; the sandbox is a profile", () => {
    const warehouse = compose.services.warehouse!;
    expect(warehouse.image).toMatch(/^postgres:/);
    expect(warehouse.healthcheck?.test?.join(" ")).toContain("pg_isready");
    expect(loader.depends_on?.warehouse?.condition).toBe("service_healthy");
    expect(loader.command?.[0]).toBe("nightly");
    const named = (service: ComposeService) =>
      (service.volumes ?? [])
        .map((v) => v.split(":")[0]!)
        .filter((source) => /^[a-z][a-z0-9_-]*$/.test(source));
    const used = [...named(warehouse), ...named(loader)];
    expect(named(warehouse)).toHaveLength(1);
    for (const volume of used) expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    expect(compose.services.sandbox?.profiles).toEqual(["sandbox"]);
    expect(compose.services.sandbox?.command?.[0]).toBe("sandbox");
  });
});

describe(".dockerignore", () => {
  it("leaves the big and the secret folders out of the build context", () => {
    const patterns = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    for (const folder of [".telecom-etl", "node_modules", ".venv", ".make", "dist", ".git", ".env"])
      expect(patterns).toContain(folder);
    // Yet what the Dockerfile copies stays in.
    for (const copied of [...read("Dockerfile").matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) =>
      m[1]!.split(" "),
    ))
      expect(patterns, copied).not.toContain(copied);
  });
});

describe("Kubernetes CronJob (deploy/kubernetes/cronjob.yaml)", () => {
  const job = parse(read("deploy/kubernetes/cronjob.yaml")) as {
    kind: string;
    spec: {
      concurrencyPolicy: string;
      jobTemplate: { spec: { template: { spec: { containers: { command: string[] }[] } } } };
    };
  };
  const command = job.spec.jobTemplate.spec.template.spec.containers[0]!.command;

  /** The container's command run by a real shell, with a `telecom-etl` on PATH that exits `code`. */
  function exitWith(code: number): number | null {
    const bin = mkdtempSync(path.join(tmpdir(), "fake-etl-"));
    writeFileSync(path.join(bin, "telecom-etl"), `#!/bin/sh\necho "$@" > "${bin}/args"\nexit ${code}\n`, {
      mode: 0o755,
    });
    const result = spawnSync(command[0]!, command.slice(1), { env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(readFileSync(path.join(bin, "args"), "utf8").trim()).toMatch(/^nightly\b/);
    return result.status;
  }

  it("counts exit 3 (rows quarantined) as success and every other code as it is", () => {
    expect(job.kind).toBe("CronJob");
    expect(job.spec.concurrencyPolicy).toBe("Forbid");
    expect(exitWith(0)).toBe(0);
    expect(exitWith(3)).toBe(0);
    for (const code of [1, 2, 4, 5, 6, 130]) expect(exitWith(code)).toBe(code);
  });

  it("the image puts telecom-etl on PATH for that command", () => {
    expect(read("Dockerfile")).toMatch(/ln -s \/app\/dist\/src\/cli\/bin\.js \/usr\/local\/bin\/telecom-etl/);
  });
});

describe("Kubernetes workers (deploy/kubernetes/worker-deployment.yaml)", () => {
  it("runs `telecom-etl worker` from the CronJob's Secret and ConfigMap, with time to hand units back", () => {
    const deployment = parse(read("deploy/kubernetes/worker-deployment.yaml")) as {
      kind: string;
      spec: {
        template: {
          spec: {
            terminationGracePeriodSeconds: number;
            containers: { command: string[]; envFrom: { secretRef: { name: string } }[] }[];
          };
        };
      };
    };
    const pod = deployment.spec.template.spec;
    expect(deployment.kind).toBe("Deployment");
    expect(pod.containers[0]!.command).toEqual(["telecom-etl", "worker"]);
    expect(pod.containers[0]!.envFrom[0]!.secretRef.name).toBe("telecom-etl");
    // The worker's own grace (60 s for units to reach a safe point) fits in the pod's.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(60);
  });
});

describe("Python lock (dbt/requirements.lock)", () => {
  it("pins every package with its hashes, the direct pins of requirements.txt included; make installs with --require-hashes", () => {
    const lock = read("dbt/requirements.lock");
    const entries = lock.split(/\n(?=[a-z])/).filter((e) => /^[a-z]/.test(e));
    expect(entries.length).toBeGreaterThan(20);
    for (const entry of entries) {
      expect(entry).toMatch(/^[A-Za-z0-9_.[\],-]+==\S+ \\/);
      expect(entry).toMatch(/--hash=sha256:[0-9a-f]{64}/);
    }
    for (const pin of read("dbt/requirements.txt")
      .split("\n")
      .filter((l) => l.includes("==")))
      expect(lock).toContain(`${pin} \\`);
    expect(read("Makefile")).toMatch(/pip install .*--require-hashes -r dbt\/requirements\.lock/);
    expect(read("Dockerfile")).toMatch(/pip install .*--require-hashes -r dbt\/requirements\.lock/);
  });
});

describe("docs/how-to/deploy-cron-systemd.md's cron line", () => {
  it("runs the job at 02 UTC whatever the server's time zone (no CRON_TZ, which Debian's cron ignores)", () => {
    const block = /```cron\n([\s\S]*?)```/.exec(read("docs/how-to/deploy-cron-systemd.md"))![1]!;
    const line = block.split("\n").find((l) => /^[0-9*]/.test(l))!;
    const [minute, hour, ...rest] = line.split(" ");
    const command = rest.slice(3).join(" ").replaceAll("\\%", "%");
    expect([minute, hour]).toEqual(["15", "*"]);
    // The guard, run by a shell at 02:15 UTC in two zones, lets the job through; at 03:15 UTC it does not.
    const guard = command.slice(0, command.indexOf("&&"));
    expect(guard).toContain("date -u");
    const at = (utc: string, tz: string) =>
      spawnSync("sh", ["-c", guard.replaceAll("date -u", `date -u -d ${utc}`)], {
        env: { PATH: "/usr/bin:/bin", TZ: tz },
      }).status;
    expect(at("2026-03-29T02:15:00Z", "Europe/Berlin")).toBe(0);
    expect(at("2026-03-29T02:15:00Z", "America/New_York")).toBe(0);
    expect(at("2026-03-29T03:15:00Z", "UTC")).not.toBe(0);
  });
});

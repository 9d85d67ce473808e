# The loader image: what `npm pack` ships (package.json "files": the loader, its migrations and dbt
# project; no sandbox, no benchmarks), with dbt's Python environment from the hash-pinned lock, run as
# a non-root user. Target `sandbox` is the platform simulator, for a trial without real keys.
# Build: docker build -t telecom-etl .   Run: docker run --rm -e DATABASE_URL=... telecom-etl run
FROM node:22-bookworm-slim AS build
WORKDIR /src
# The workspaces' package.json files first (npm ci links packages/platform and packages/sandbox).
COPY package.json package-lock.json ./
COPY packages/platform/package.json ./packages/platform/
COPY packages/sandbox/package.json ./packages/sandbox/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.base.json tsconfig.build.json ./
COPY packages ./packages
COPY src ./src
COPY bench ./bench
RUN npm run build
COPY sql ./sql
COPY dbt ./dbt
COPY docs ./docs
COPY LICENSE NOTICE CHANGELOG.md README.md telecom-etl.example.yaml ./
# The packed tarball, unpacked into /app with the production dependencies of the lock. The lock
# links @telecom-etl/platform to packages/platform, which /app has not: npm ci leaves a dangling
# link there, so the tarball's bundled copy of the platform's contract is put back after it.
RUN npm pack --pack-destination /tmp && mkdir /app \
    && tar -xzf /tmp/telecom-etl-*.tgz -C /app --strip-components=1 \
    && cp package-lock.json /app/ && cd /app && npm ci --omit=dev --no-audit --no-fund && rm package-lock.json \
    && rm -rf node_modules/@telecom-etl \
    && tar -xzf /tmp/telecom-etl-*.tgz -C /app --strip-components=1 package/node_modules/@telecom-etl

# The simulator (the built clone, packages/sandbox included): docker compose --profile sandbox up sandbox.
FROM build AS sandbox
USER node

FROM node:22-bookworm-slim AS loader
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /app /app
WORKDIR /app
RUN python3 -m venv /opt/dbt && /opt/dbt/bin/pip install --no-cache-dir --require-hashes -r dbt/requirements.lock
# `telecom-etl` on PATH, for wrappers such as the Kubernetes CronJob's (deploy/kubernetes/cronjob.yaml);
# dbt from the image's environment; state (dbt's work folders, an embedded warehouse) under /app/.telecom-etl.
RUN chmod +x dist/src/cli/bin.js && ln -s /app/dist/src/cli/bin.js /usr/local/bin/telecom-etl \
    && useradd --create-home etl && mkdir -p /app/.telecom-etl && chown -R etl /app/.telecom-etl
ENV DBT_BIN=/opt/dbt/bin/dbt MF_BIN=/opt/dbt/bin/mf TELECOM_ETL_HOME=/app/.telecom-etl
USER etl
ENTRYPOINT ["node", "dist/src/cli/bin.js"]
CMD ["nightly"]

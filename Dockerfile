# The loader CLI with dbt, for docker-compose, Kubernetes CronJobs or any scheduler.
# Build: docker build -t telecom-etl .   Run: docker run --rm -e DATABASE_URL=... telecom-etl run
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY dbt/requirements.lock ./dbt/requirements.lock
RUN python3 -m venv .venv && .venv/bin/pip install --no-cache-dir --require-hashes -r dbt/requirements.lock
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY sql ./sql
COPY dbt ./dbt
COPY scripts ./scripts
# The clone's launcher, which scripts/nightly.sh runs (here it finds the image's Node 22 on PATH).
COPY telecom-etl ./telecom-etl
# `telecom-etl` on PATH, for wrappers such as the Kubernetes CronJob's (deploy/kubernetes/cronjob.yaml).
RUN chmod +x dist/src/cli/bin.js && ln -s /app/dist/src/cli/bin.js /usr/local/bin/telecom-etl \
    && useradd --create-home etl && mkdir -p /app/.telecom-etl && chown -R etl /app/.telecom-etl
USER etl
ENTRYPOINT ["node", "dist/src/cli/bin.js"]
CMD ["nightly"]

# The infermeter image: the CLI on Node 20, for `infermeter worker` and the coordinator
# (`infermeter run --distributed`) in a cluster (docs/distributed.md §The image).
#   docker build -t infermeter:0.1.0 .
#   docker run --rm infermeter:0.1.0 --help
# Three stages: the compiler (all dependencies), the production dependencies alone, and the
# runtime with only those and the compiled CLI. No Chromium: playwright-core is a devDependency.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would compile before the sources are here; the compile is the step below.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only (none needs an install script: DuckDB's binary is a per-platform optional package).
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY docs ./docs
COPY README.md ./
# Run directories go here; mount a volume to keep them (the manifests mount one).
RUN mkdir /results && chown 1000:1000 /results
# Numeric, so a pod's runAsNonRoot can be verified against the image (uid 1000 is node:20's `node`).
USER 1000:1000
ENTRYPOINT ["node", "/app/bin/infermeter.js"]
CMD ["--help"]

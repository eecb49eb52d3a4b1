# The infermeter image: the CLI on Node 20, for `infermeter worker` and the coordinator
# (`infermeter run --distributed`) in a cluster (docs/distributed.md).
#   docker build -t infermeter:0.1.0 .
#   docker run --rm infermeter:0.1.0 --help

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `prepare` compiles src/ (tsc), so the sources come first; dev dependencies are dropped after.
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY docs ./docs
COPY README.md ./
# Run directories go here; mount a volume to keep them.
RUN mkdir /results && chown node:node /results
USER node
ENTRYPOINT ["node", "/app/bin/infermeter.js"]
CMD ["--help"]

# kaito-ts operator image. Build: docker build -t ghcr.io/kaito-ts/kaito-ts:0.1.0 .
# Stage 1 compiles TypeScript with the dev dependencies; stage 2 holds only the compiled operator
# (not the simulated cluster, the demo or their commands), its production dependencies and the CRD,
# and runs as a non-root numeric user (the chart also sets runAsNonRoot, a read-only root filesystem
# and drops every capability).
FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would compile before the sources are copied.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
RUN npx tsc -p tsconfig.json
# The operator's files of dist/src only (src/cli/image-files.ts): no simcluster, demo or local commands.
RUN mkdir /out && node dist/src/cli/image-files.js | xargs cp --parents -t /out

FROM node:20-slim
ENV NODE_ENV=production
# A small young generation: the operator's garbage is short-lived; measured 100 → 79 MiB RSS for
# 150 workspaces (docs/benchmarks.md). The chart sets the same through nodeOptions.
ENV NODE_OPTIONS=--max-semi-space-size=2
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY bin ./bin
COPY config ./config
COPY --from=build /out/dist ./dist
USER 65532:65532
EXPOSE 8080 8081
ENTRYPOINT ["node", "/app/bin/kaito-ts.js"]
CMD ["run", "--leader-elect"]

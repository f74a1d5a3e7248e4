# syntax=docker/dockerfile:1
#
# The hcc image: one image for every hcc process. The entrypoint is the `hcc` CLI, so the first
# argument picks the part: `syncer` (deploy/syncer, deploy/charts/hcc-syncer), `control-center`,
# `scheduler`, `hypershift-sim` (deploy/hypershift-sim, the kind demo).
#
#   docker build -t hcc:0.1.0 .
#   docker run --rm hcc:0.1.0 --help
#
# Stage 1 (build) installs every dependency with `npm ci`, compiles the TypeScript workspaces
# (`npm run build` → packages/*/dist) and prunes the dev dependencies (typescript, vitest, the
# kubectl/helm test tools). Stage 2 (runtime) copies only the compiled packages, their
# package.json files and the production node_modules onto a fresh node:20 bookworm-slim, and runs
# as the unprivileged UID 1000 (numeric, so Kubernetes' runAsNonRoot can verify it).
# The build context is kept small by .dockerignore (an allowlist).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# Dependency manifests first: the `npm ci` layer is reused until one of them changes.
# One line per workspace of package.json (test/deploy.test.ts checks that none is missing).
COPY package.json package-lock.json .npmrc ./
COPY packages/crds/package.json packages/crds/
COPY packages/client/package.json packages/client/
COPY packages/control-center/package.json packages/control-center/
COPY packages/hypershift-sim/package.json packages/hypershift-sim/
COPY packages/scheduler/package.json packages/scheduler/
COPY packages/syncer/package.json packages/syncer/
COPY packages/cli/package.json packages/cli/
COPY packages/cli/bin/ packages/cli/bin/
# classic-level (the level store) installs a prebuilt addon for linux x64/arm64 glibc; another
# platform would need python3, make and g++ here to compile it.
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages/ packages/
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf packages/*/src packages/*/tsconfig.json packages/*/*.tsbuildinfo packages/*/scripts

FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="hcc" \
      org.opencontainers.image.description="hcc, the HostedCluster control center: control center, scheduler, syncer and hypershift-sim for HyperShift fleets" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
WORKDIR /app
# Everything stays owned by root and read-only to the process; only /var/lib/hcc (the control
# center's data dir, when it runs in a container) belongs to UID 1000. The control center's
# defaults write under .hcc/ in the working directory, which UID 1000 cannot: run it as
#   control-center --data-dir /var/lib/hcc --kubeconfig /var/lib/hcc/admin.kubeconfig \
#     --scheduler-kubeconfig /var/lib/hcc/scheduler.kubeconfig --host 0.0.0.0 ...
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules/ node_modules/
COPY --from=build /src/packages/ packages/
RUN mkdir -p /var/lib/hcc && chown 1000:1000 /var/lib/hcc
USER 1000:1000
ENTRYPOINT ["node", "packages/cli/bin/hcc.js"]
CMD ["--help"]

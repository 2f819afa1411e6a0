# syntax=docker/dockerfile:1
# Strongroom: one image for the api, the tokenizer and the operator (the chart picks the command).
#   docker build -t strongroom .
#   docker run -p 3000:3000 -v strongroom-data:/data strongroom     # npm start's supervisor, compiled
#   docker run --rm -it -v strongroom-data:/data -e STRONGROOM_WRAPPING_KEY strongroom dist/tokenizer/keyring-init.js
ARG NODE_IMAGE=node:22-bookworm-slim

# Build: every dependency (TypeScript, and the pinned Node 22 the npm scripts run on), then `npm run build`.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# pkcs11js (the tokenizer's HSM custody) is a native addon compiled at install: the compiler stays in this stage.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY proto ./proto
COPY api ./api
COPY tokenizer ./tokenizer
COPY operator ./operator
COPY web ./web
RUN npm run build

# Production dependencies only: no test tools, no second Node, and no compiler in the image (it stays here).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# pkcs11js (the tokenizer's HSM custody) is a native addon compiled at install: the compiler stays in this stage.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ARG VERSION=0.2.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="Strongroom" \
      org.opencontainers.image.description="Privacy data vault and tokenization engine speaking the DatabunkerPro v2 API" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/strongroom/strongroom" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# The image runs as uid 1000 ("node") by default: the supervisor then runs the api and the tokenizer under that uid
# both. Started as root (`docker run --user 0`), it runs each under its own uid: the api as 1000, the tokenizer as
# 1001, which alone owns /data/tokenizer (the keyring, 0700) and the socket's directory (/data/run, group 1000).
# Either way each gets only its own settings: the api never sees the wrapping key, the tokenizer never sees
# DATABASE_URL, the root token, SMTP or S3. The chart runs them as separate containers, as non-root.
# A container is reached from outside it: bind every address (a development `npm start` binds 127.0.0.1).
ENV NODE_ENV=production HOST=0.0.0.0 STRONGROOM_DATA_DIR=/data STRONGROOM_API_UID=1000 STRONGROOM_TOKENIZER_UID=1001
RUN mkdir /data && chown 1000:1000 /data && chmod 700 /data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/web/dist ./web/dist
COPY --from=build --chown=root:root /app/web/docs ./web/docs
COPY --chown=root:root package.json ./
# The code belongs to root and cannot be changed by the processes.
USER 1000:1000
EXPOSE 3000 8080 9464
# The api's liveness, for the default command (Kubernetes uses the chart's probes instead; for the tokenizer or the
# operator under plain Docker, run with --no-healthcheck).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node"]
CMD ["dist/api/supervisor.js"]

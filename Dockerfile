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
# The supervisor (the default command) starts as root only to run each process under its own uid: the api as
# 1000 ("node"), the tokenizer as 1001, which alone owns /data/tokenizer (the keyring, 0700) and the socket's
# directory (/data/run, group 1000). Each gets only its own settings: the api never sees the wrapping key, the
# tokenizer never sees DATABASE_URL, the root token, SMTP or S3. The chart runs them as separate containers.
# A container is reached from outside it: bind every address (a development `npm start` binds 127.0.0.1).
ENV NODE_ENV=production HOST=0.0.0.0 STRONGROOM_DATA_DIR=/data STRONGROOM_API_UID=1000 STRONGROOM_TOKENIZER_UID=1001
RUN mkdir /data && chown 1000:1000 /data && chmod 700 /data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/web/dist ./web/dist
COPY --from=build --chown=root:root /app/web/docs ./web/docs
COPY --chown=root:root package.json ./
# The code belongs to root and cannot be changed by the processes. Under Kubernetes the chart sets runAsUser
# (1000) and runs api and tokenizer in separate containers; `docker run --user 1000` also works, with both
# processes sharing that uid (the supervisor says so at start).
EXPOSE 3000 8080 9464
ENTRYPOINT ["node"]
CMD ["dist/api/supervisor.js"]

# syntax=docker/dockerfile:1
# Strongroom: one image for the api, the tokenizer and the operator (the chart picks the command).
#   docker build -t strongroom .
#   docker run -p 3000:3000 -v strongroom-data:/data strongroom     # npm start's supervisor, compiled
ARG NODE_IMAGE=node:22-bookworm-slim

# Build: every dependency (TypeScript, and the pinned Node 22 the npm scripts run on), then `npm run build`.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY proto ./proto
COPY api ./api
COPY tokenizer ./tokenizer
COPY operator ./operator
COPY web ./web
RUN npm run build

# Production dependencies only: no compiler, no test tools, no second Node.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production STRONGROOM_DATA_DIR=/data
RUN mkdir /data && chown 1000:1000 /data && chmod 700 /data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/web/dist ./web/dist
COPY --from=build --chown=root:root /app/web/docs ./web/docs
COPY --chown=root:root package.json ./
# The code belongs to root and cannot be changed by the process, which runs as the image's unprivileged user
# (uid 1000, "node"); the numeric id lets Kubernetes check runAsNonRoot.
USER 1000:1000
EXPOSE 3000 8080 9464
ENTRYPOINT ["node"]
CMD ["dist/api/supervisor.js"]

# syntax=docker/dockerfile:1
# Parley: build with the dev dependencies, run with the production ones, redis-server, espeak-ng, flite and pocketsphinx (offline speech).
#   docker build -t parley .
#   docker run -p 8080:8080 -v parley-data:/data -e PARLEY_ADMIN_API_KEY=... parley
# Models (optional): docker run --rm -v parley-models:/models parley node dist/scripts/models.js

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# onnxruntime-node: no CUDA libraries (ONNX models run on the CPU); see .npmrc.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
# Everything .dockerignore lets through (sources, configs; no tests, benches or weights).
COPY . .
RUN npm run build && npx tsc -p scripts/tsconfig.json

FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server espeak-ng flite libpocketsphinx3 pocketsphinx-en-us ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    PORT=8080 \
    PARLEY_DATA_DIR=/data \
    MODELS_DIR=/models
COPY package.json package-lock.json .npmrc ./
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Lua scripts are read at run time from src/; the built /home panel is in dist/panel.
COPY --from=build /app/src ./src
COPY models/manifest.json models/README.md ./models/
RUN mkdir -p /data /models && chown node:node /data /models
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]

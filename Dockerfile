# One image for every role (ROLE=api|worker|scheduler|all).

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# patch-package applies patches/ after the install (see docs/decisions/redis.md).
COPY patches ./patches
# The TypeScript client is a workspace of the repository: npm ci reads its manifest, the build compiles it.
COPY clients/typescript/package.json ./clients/typescript/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY schemas ./schemas
COPY console ./console
COPY clients/typescript/tsconfig.json ./clients/typescript/
COPY clients/typescript/src ./clients/typescript/src
# Compile, then drop the dev dependencies (TypeScript, mocha, testcontainers) from node_modules.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# python3 for the built-in execute_code tool (JavaScript runs on the image's node); bubblewrap and socat
# for the tools' sandbox (its namespaces, and the bridge from its network to the egress proxy).
RUN apt-get update && apt-get install -y --no-install-recommends python3 bubblewrap socat && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Read at run time: the Redis Lua scripts (src/paths.ts). The JSON Schemas are compiled into dist/schemas.
COPY --from=build /app/src/redis/scripts ./src/redis/scripts
# The web console's page, stylesheet and icon (its modules are compiled into dist/console).
COPY --from=build /app/console/public ./console/public
# The client package the console stands on: its compiled modules are served to the browser, found by its
# name through the workspace's link in node_modules (its manifest's exports).
COPY --from=build /app/clients/typescript/package.json ./clients/typescript/
COPY --from=build /app/clients/typescript/dist ./clients/typescript/dist
# Runs as root on purpose: a worker runs each session's tools as an unprivileged user of that session's
# own, in namespaces of their own (src/tools/isolation.ts), which needs the right to switch users and,
# from the container's engine, CAP_SYS_ADMIN and CAP_NET_ADMIN (see docker-compose.yml). The Node process
# itself holds no file or network privilege beyond the container's.
EXPOSE 8080
CMD ["node", "dist/src/main.js"]

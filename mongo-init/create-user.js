// The service's MongoDB user: readWrite on its own database (agent_sessions) and nothing else, which is all
// it needs (its collections, their documents and indexes). The mongo image runs this once, on an empty data
// directory, before authentication is turned on (docker-compose.yml mounts this directory at
// /docker-entrypoint-initdb.d); the password is the service's MONGO_PASSWORD.
const password = process.env.MONGO_INITDB_SERVICE_PASSWORD;
if (!password) throw new Error("MONGO_INITDB_SERVICE_PASSWORD is not set");
db.getSiblingDB("agent_sessions").createUser({ user: "agent_sessions", pwd: password, roles: [{ role: "readWrite", db: "agent_sessions" }] });

/** A configuration problem, naming the variable at fault and never its value. */
export class ConfigError extends Error {}

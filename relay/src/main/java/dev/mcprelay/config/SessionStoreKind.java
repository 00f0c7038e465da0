package dev.mcprelay.config;

/** Where state shared across requests lives, {@code mcp-relay.sessions.store}. */
public enum SessionStoreKind {

	/** In this process: replicas do not share it. */
	MEMORY,

	/** In Redis ({@code spring.data.redis.*}): every replica sees the same state. */
	REDIS

}

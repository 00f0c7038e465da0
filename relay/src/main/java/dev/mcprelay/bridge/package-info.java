/**
 * The version bridge (issue 46, DESIGN section 4): one relay between both generations of MCP, so that a client that
 * speaks only the session era (2025-03-26 .. 2025-11-25: {@code initialize}, {@code Mcp-Session-Id}, a GET stream)
 * reaches a server that speaks only 2026-07-28 (no sessions: {@code server/discover}, the version, client info and
 * capabilities in each request's {@code _meta}, {@code Mcp-Method}/{@code Mcp-Name}, {@code subscriptions/listen}),
 * and back.
 *
 * <h2>Where it sits</h2>
 * Beneath everything the relay decides: the front door, routing, rate limits, policies, interceptors, telemetry and
 * the session order run on the client's message, in the client's version, exactly as for any server; the bridge is
 * the {@link dev.mcprelay.transport.UpstreamTransport} of a Streamable HTTP server ({@link VersionBridge}, wrapped
 * around the relay's own Streamable HTTP transport), so it turns the request, after every decision, into what the
 * server speaks, and turns what the server answers back into the client's version before any response stage sees
 * it. Each message is therefore seen once by interceptors, policies, metrics and traces, in the client's version;
 * what the bridge adds (a {@code server/discover} the relay asks on its own behalf) is the relay's, not the
 * client's, and is neither intercepted nor counted as a client request.
 *
 * <h2>When it bridges</h2>
 * Per request, by the versions of the two ends: the client's (its {@code initialize}'s {@code protocolVersion}, then
 * its session; a 2026 request names its own) and the server's ({@link ServerVersions}: pinned by
 * {@code mcp-relay.servers.<id>.protocol-versions}, else learnt from the server's own answers and remembered per
 * server). Only when the server speaks no version of the client's generation is anything bridged. A client and a
 * server that share a version (or a server whose versions are not known yet) are relayed as before, byte for byte:
 * the bridge then only looks at the status of an {@code initialize}'s answer, and reads the body of a refusal (4xx,
 * JSON) for the versions it names ({@code error.data.supported}), which make the relay ask its own requests: what a
 * server speaks is learnt only from the answers to requests the relay builds from the server's configuration
 * ({@link OwnRequests}), never from an exchange that carries a client's headers (review 46i F1, review 46j N1).
 *
 * <h2>What it keeps</h2>
 * <ul>
 * <li>Direction 1 (2025 client, 2026-only server): a relay session the bridge mints for the client
 * ({@link BridgeSessions}, ids beginning {@link BridgeSessions#PREFIX}), in the relay's session store (DESIGN section
 * 7: memory, or Redis shared by replicas), bound to the caller that opened it, holding what the 2026 server needs in
 * every request and the 2025 client declared once: its protocol version, client info and capabilities, and the
 * server's capabilities from {@code server/discover}. The server never sees the session id. Any replica sharing the
 * store serves any request of the session; a GET stream (the server's {@code subscriptions/listen}) is held by the
 * replica that opened it, and a DELETE there ends it. A request whose result asks the client for input
 * ({@code input_required}) is carried through its rounds by the replica it came to ({@link InputRounds}): the server
 * requests go to the client on that request's stream, and the client's answers are awaited there
 * ({@link ClientAnswers}, in memory, bounded by the round's time and the rounds' number).</li>
 * <li>Direction 2 (2026 client, 2025-only server, {@link PerRequestBridge}): an upstream session per caller, envelope
 * (client info and capabilities) and server ({@link UpstreamSessions}), opened with the relay's own {@code initialize}
 * on first use and opened again on 404, in the same store, keyed by a SHA-256 of caller and envelope; each 2026
 * request goes in it, and {@code server/discover} is answered from its {@code initialize}.</li>
 * </ul>
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle">MCP 2026-07-28 lifecycle</a>
 */
package dev.mcprelay.bridge;

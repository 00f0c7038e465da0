#!/usr/bin/env python3
"""bench/reload-config.py: the configuration bench/reload.sh reloads.

  reload-config.py SERVERS KEYS ROUND   prints the configuration of ROUND (0: the one the relay starts with)
  reload-config.py --key N              prints API key N

SERVERS servers s000.. (a URL on 127.0.0.1 where nothing needs to listen, and an X-Tenant header) and KEYS API keys
in mode api-key, key N opening server N modulo SERVERS, key 0 also the actuator (management). Round R changes the
header of the servers 1..R (its value names the round that last changed it: so round R changes exactly server R
modulo SERVERS) and revokes the keys 1..R (round R revokes key R): each reload changes one server and revokes one key.
"""
import hashlib
import sys


def key(n):
    return "bench-reload-key-%06d" % n


def config(servers, keys, round_):
    lines = ["mcp-relay:", "  security:", "    mode: api-key", "    api-keys:"]
    for n in range(keys):
        if 1 <= n <= round_:
            continue
        lines.append("      - client: client-%06d" % n)
        lines.append("        key-sha256: \"%s\"" % hashlib.sha256(key(n).encode()).hexdigest())
        lines.append("        servers: [s%03d]" % (n % servers))
        if n == 0:
            lines.append("        management: true")
    lines.append("  servers:")
    for s in range(servers):
        # the last round at or before round_ that changed server s (rounds 1.. change server round % servers)
        changed = max((r for r in range(1, round_ + 1) if r % servers == s), default=0)
        lines.append("    s%03d:" % s)
        lines.append("      url: http://127.0.0.1:9/mcp/%d" % s)
        lines.append("      headers:")
        lines.append("        - { name: X-Tenant, value: \"tenant-%d-round-%d\" }" % (s, changed))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1] == "--key":
        print(key(int(sys.argv[2])))
    else:
        sys.stdout.write(config(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))

import { isIPv4, isIPv6 } from "node:net";

/** True for `localhost`, 127.0.0.0/8 and `::1` (also written `[::1]` or as an IPv4-mapped 127.x address). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const name = bare.toLowerCase();
  if (name === "localhost") return true;
  if (isIPv4(name)) return name.startsWith("127.");
  if (isIPv6(name)) {
    if (name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name);
    return mapped !== null && mapped[1]!.startsWith("127.");
  }
  return false;
}

/** How a host name appears in a URL (IPv6 addresses in brackets). */
export function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

import { isIPv4, isIPv6 } from "node:net";

/** True for 127.0.0.0/8 and `::1`, also written as an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const name = address.toLowerCase();
  if (isIPv4(name)) return name.startsWith("127.");
  if (!isIPv6(name)) return false;
  if (name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name);
  return mapped !== null && mapped[1]!.startsWith("127.");
}

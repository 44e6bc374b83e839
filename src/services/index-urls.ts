/** Where an index's data plane answers, for people and tools (the `url` of the SDK). */
export interface IndexUrls {
  /** Always works: `<base>/indexes/<endpoint>`. */
  url: string;
  /** With host-based routing (`SEARCHPLANE_DATA_DOMAIN`): `<scheme>://<endpoint>.<domain>[:port]`. */
  host_url?: string;
}

/**
 * The data-plane URLs of an endpoint under a public base URL (`SEARCHPLANE_PUBLIC_URL`, or the
 * address the server listens on).
 */
export function indexUrls(endpoint: string, baseUrl: string, dataDomain?: string): IndexUrls {
  const base = new URL(baseUrl);
  const path = base.pathname.replace(/\/+$/, '');
  const urls: IndexUrls = { url: `${base.origin}${path}/indexes/${endpoint}` };
  if (dataDomain) urls.host_url = `${base.protocol}//${endpoint}.${dataDomain}${base.port ? `:${base.port}` : ''}`;
  return urls;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiCredentials {
  email: string;
  apiKey: string;
}

/** One JSON request to a running server, with HTTP Basic credentials when given. */
export async function api<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { auth?: ApiCredentials; bearer?: string; body?: unknown } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (options.auth) {
    headers.authorization = `Basic ${Buffer.from(`${options.auth.email}:${options.auth.apiKey}`).toString('base64')}`;
  }
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON; keep the text for the assertion message
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

/** The index record without its time-dependent throughput series. */
export function withoutThroughput<T extends { throughput_vector?: unknown }>(record: T): Omit<T, 'throughput_vector'> {
  const { throughput_vector: _ignored, ...rest } = record;
  return rest;
}

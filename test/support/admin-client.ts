/** JSON requests against a running Parley, as tests and benches make them. */

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** The `X-API-Key` to send instead of the client's own; null sends none. */
  apiKey?: string | null;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

export interface AdminClient {
  /** fetch against the server; JSON bodies are serialised, the admin key sent unless `apiKey: null`. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
}

/** A client for the Parley at `url` that sends `adminKey` by default. */
export function adminClient(url: string, adminKey: string): AdminClient {
  return {
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey !== null) headers['X-API-Key'] ??= options.apiKey ?? adminKey;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        /* not JSON: the text is the body */
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
  };
}

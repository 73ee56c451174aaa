// A stand-in Hugging Face endpoint for tests, the benchmark and the takeover (no network here): the file
// list and config.json of a few models, a gated one, a slow one, malformed answers. It counts requests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeModel {
  files: { path: string; size: number; type?: string }[];
  /** config.json text; absent: 404 (a Mistral repo may have params.json instead). */
  config?: string;
  params?: string;
  /** Only this bearer token may read it (401 without a token, 403 with another). */
  token?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Serve this text as the file list instead (malformed answers). */
  rawTree?: string;
  /** Answer config.json with a redirect to this path of the same server. */
  redirectConfigTo?: string;
}

export interface FakeHub {
  url: string;
  requests: string[];
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export const QWEN3_8B_CONFIG = JSON.stringify({
  architectures: ['Qwen3ForCausalLM'],
  hidden_size: 4096,
  num_hidden_layers: 36,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  head_dim: 128,
  max_position_embeddings: 40960,
  rope_scaling: null,
});

/** Qwen/Qwen3-8B as the hub lists it (sizes summing to 15.26 GiB), plus the README and tokenizer. */
export const QWEN3_8B: FakeModel = {
  files: [
    { path: 'README.md', size: 16_000, type: 'file' },
    { path: 'config.json', size: 728, type: 'file' },
    { path: 'model-00001-of-00002.safetensors', size: 8_192_000_000, type: 'file' },
    { path: 'model-00002-of-00002.safetensors', size: 8_192_000_000, type: 'file' },
    { path: 'tokenizer.json', size: 11_422_654, type: 'file' },
  ],
  config: QWEN3_8B_CONFIG,
};

/** A Qwen3-0.6B-shaped model (1.4 GiB of weights): fits one GPU of every simcluster SKU. */
export const QWEN3_0_6B: FakeModel = {
  files: [
    { path: 'config.json', size: 726, type: 'file' },
    { path: 'model.safetensors', size: 1_503_300_328, type: 'file' },
    { path: 'tokenizer.json', size: 11_422_654, type: 'file' },
  ],
  config: JSON.stringify({
    architectures: ['Qwen3ForCausalLM'],
    hidden_size: 1024,
    num_hidden_layers: 28,
    num_attention_heads: 16,
    num_key_value_heads: 8,
    head_dim: 128,
    max_position_embeddings: 40960,
    rope_scaling: null,
  }),
};

export async function startFakeHub(models: Record<string, FakeModel>): Promise<FakeHub> {
  const requests: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(`${url.pathname}${url.search}`);
    authorizations.push(req.headers.authorization);
    const reply = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    const tree = /^\/api\/models\/(.+)\/tree\/main$/.exec(url.pathname);
    const file = /^\/(.+)\/resolve\/main\/([^/]+)$/.exec(url.pathname);
    const repo = tree?.[1] ?? file?.[1] ?? '';
    const model = Object.entries(models).find(([id]) => id.toLowerCase() === repo.toLowerCase())?.[1];
    const answer = () => {
      if (!model) return reply(404, '{"error":"Repository not found"}');
      if (model.token !== undefined) {
        const auth = req.headers.authorization;
        if (!auth) return reply(401, '{"error":"Access to model is restricted"}');
        if (auth !== `Bearer ${model.token}`) return reply(403, '{"error":"forbidden"}');
      }
      if (tree) return reply(200, model.rawTree ?? JSON.stringify(model.files.map((f) => ({ type: 'file', ...f }))));
      if (file?.[2] === 'config.json' && model.redirectConfigTo) return reply(307, '', { location: model.redirectConfigTo });
      const text = file?.[2] === 'config.json' ? model.config : file?.[2] === 'params.json' ? model.params : undefined;
      return text === undefined ? reply(404, '{"error":"Entry not found"}') : reply(200, text);
    };
    if (model?.delayMs) setTimeout(answer, model.delayMs).unref();
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    authorizations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

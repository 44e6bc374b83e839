import { expect, test } from 'vitest';
import { transformersInstalled } from '../../src/engine/providers/onnx-embedder.js';
import { api } from '../blackbox/support/http-client.js';
import { useStoreTarget } from '../blackbox/support/lifecycle.js';
import { startServer } from '../blackbox/support/searchplane-process.js';
import { writeTinyModel } from './tiny-model.js';

/** The built service with SEARCHPLANE_EMBEDDINGS_PROVIDER=onnx on the tiny model: upsert, index vectors, search. */
const installed = transformersInstalled();

const target = useStoreTarget();
const auth = { email: 'onnx@example.com', apiKey: 'onnx-key-0123456789abcdef' };

async function dataPlane(url: string, token: string, route: string, body?: unknown) {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

test.skipIf(!installed)(
  `serve embeds documents and queries with the onnx provider${installed ? '' : ' (SKIPPED: @huggingface/transformers is not installed)'}`,
  async () => {
    const modelDir = writeTinyModel(target.dataDir);
    const server = await startServer(target.args, {
      SEARCHPLANE_ADMIN_EMAIL: auth.email,
      SEARCHPLANE_ADMIN_API_KEY: auth.apiKey,
      SEARCHPLANE_EMBEDDINGS_PROVIDER: 'onnx',
      SEARCHPLANE_EMBEDDINGS_MODEL: modelDir,
      SEARCHPLANE_EMBEDDINGS_BATCH_SIZE: '2',
    });
    const created = await api(server.url, 'POST', '/v2/search', {
      auth,
      body: { name: 'pets', region: 'eu-west-1', type: 'payg' },
    });
    expect(created.status).toBe(200);
    const base = `${server.url}/indexes/${created.body.endpoint}`;
    const token = created.body.token as string;

    const documents = [
      { id: 'm1', content: { text: 'the cat sat on the mat' } },
      { id: 'm2', content: { text: 'the dog ran far away' } },
      { id: 'm3', content: { text: 'cats' } },
    ];
    expect((await dataPlane(base, token, '/upsert-data/pets', documents)).body).toEqual({ result: 'Success' });

    // Vectors are computed after the upsert returns; poll until none is pending (bounded).
    let info: any;
    for (let attempt = 0; attempt < 200; attempt++) {
      info = (await dataPlane(base, token, '/info')).body.result;
      if (info.pendingVectorCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(info).toMatchObject({ vectorCount: 3, pendingVectorCount: 0 });

    for (const wanted of documents) {
      // Pure vector search, the query as written (no spelling expansion): a document's own text
      // embeds to the same vector, the top score: cosine 1 but for the 8-bit code it is stored as.
      const found = await dataPlane(base, token, '/search/pets', {
        query: wanted.content.text,
        topK: 3,
        semanticWeight: 1,
        inputEnrichment: false,
      });
      expect(found.status).toBe(200);
      expect(found.body.result[0].id).toBe(wanted.id);
      expect(found.body.result[0].score).toBeGreaterThan(0.999);
      expect(found.body.result[1].score).toBeLessThan(0.99);
    }
  },
);

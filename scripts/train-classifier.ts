// postinstall: trains the text items' model once and keeps it (src/ingest/classifier/item-cache.ts),
// so neither the server's start nor each test worker pays for it.
import { defaultJudge } from '../src/ingest/classifier/relevance.js';

defaultJudge();

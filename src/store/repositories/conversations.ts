// PLACEHOLDER (owned by the records helper): replace with the real repository, keep the constructor.
import type { Keys } from '../keys.js';
import type { Redis } from '../redis.js';


export class ConversationRepository {
  constructor(private readonly redis: Redis, private readonly keys: Keys) {}
}

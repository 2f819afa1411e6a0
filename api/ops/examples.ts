// The people and names the API reference's examples share, so the examples read as one story (and the contract
// test, test/integration/openapi-contract.test.ts, can play it): Ada is created first and found by email after.
export const ADA = { mode: 'email', identity: 'ada@example.com' } as const;

export const ADA_PROFILE = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+442079460018', login: 'ada' };

/**
 * Values the vault generates, shown as they look: a client sends the one its earlier call answered (BulkListUnlock
 * for `unlockuuid`, GroupCreate for `groupid`, and so on).
 */
export const GENERATED = {
  unlockuuid: '0f6a3c5e-2b1d-4e8f-9a7c-5d4e3f2a1b0c',
  token: '8e2f4c1a-6b3d-4a5e-9f7c-1d2e3f4a5b6c',
  uuid: '3c9d2e1f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  tokenuuid: 'b7c6d5e4-f3a2-4b1c-8d9e-0f1a2b3c4d5e',
  xtokenid: '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
  id: 2,
};

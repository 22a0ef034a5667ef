/** Which credential: one tenant's account at one service. */
export interface CredentialKey {
  tenantId: string;
  service: string;
  account: string;
}

export type { Principal, RunnerDeclaration } from './model.js';
export {
  SERVICE_PRINCIPALS,
  PLATFORM_RUNNERS,
  CLIENT_PRINCIPALS,
  MEMORY_RUNNER,
  ORCHESTRATOR_CANCEL_SUBJECT,
  platformPrincipals,
} from './platform-permissions.js';
export { runnerPrincipal, toolSubscriptions, discoverySubscriptions } from './runner-subjects.js';
export { renderNatsAuthorization, passwordVariable, type PasswordSource } from './render-config.js';
export { generatePasswords, renderSecretsYaml, renderEnvFile } from './secrets.js';
export { parseRunnersFile } from './runner-file.js';

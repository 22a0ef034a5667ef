/**
 * The root of every error class in the platform's libraries and services: its `name` is its
 * class's (`new.target.name`), so a subclass never sets it by hand and logs name the class that
 * was thrown. Each library has one base class extending it (`ServiceKitError`, `ToolSdkError`, …).
 */
export class NamedError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

// Globals that the device (Moddable XS) provides and device code may use.
declare function trace(...items: unknown[]): void;

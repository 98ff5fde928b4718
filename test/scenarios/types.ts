// A scenario is a test that must pass both under mocha (Node) and inside XS.
export interface Scenario {
  name: string;
  run(): void | Promise<void>;
}

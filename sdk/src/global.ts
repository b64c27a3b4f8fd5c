import * as Savepoint from "./index.ts";

// The `<script>` build (dist/savepoint.global.min.js): pages and engines without modules find the SDK on
// `window.Savepoint` (globalThis.Savepoint in workers and embedded JS engines), README, Building.
(globalThis as { Savepoint?: typeof Savepoint }).Savepoint = Savepoint;

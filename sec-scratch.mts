import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
const root = '/tmp/sec-sql/results';
const N = Number(process.env.N ?? 100), PER = Number(process.env.PER ?? 1000);
if (!existsSync(root)) {
  for (let r = 0; r < N; r++) {
    mkdirSync(`${root}/run${r}`, { recursive: true });
    const lines = [];
    for (let i = 0; i < PER; i++) lines.push(JSON.stringify({id:i,phase:'measure',stage:0,worker:0,task:null,session:null,turn:null,scheduled_ms:i*10,sent_ms:i*10+0.4,first_token_ms:i*10+30,chunk_ms:Array.from({length:64},(_, k)=>i*10+30+k*4.1),end_ms:i*10+300,prompt_tokens:256,output_tokens:64,requested_output_tokens:64,token_source:'usage',client_prompt_tokens:256,status:'ok',error_class:null,http_status:200,finish_reason:'length',error_message:null,output_text:null}));
    writeFileSync(`${root}/run${r}/records.jsonl`, lines.join('\n') + '\n');
  }
}
const files = Array.from({length: N}, (_, r) => `'${root}/run${r}/records.jsonl'`).join(',');
const inst = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
const c = await inst.connect();
let t = performance.now();
await c.run(`CREATE VIEW rv AS SELECT * FROM read_json([${files}], format='newline_delimited', filename=true, ignore_errors=true)`);
await c.runAndReadAll(`SELECT count(*), quantile_cont(first_token_ms - sent_ms, 0.99) FROM rv`);
console.log('view query ms', (performance.now() - t).toFixed(0));
t = performance.now();
await c.run(`CREATE TABLE rt AS SELECT * FROM read_json([${files}], format='newline_delimited', filename=true, ignore_errors=true)`);
console.log('materialise ms', (performance.now() - t).toFixed(0));
t = performance.now();
await c.runAndReadAll(`SELECT count(*), quantile_cont(first_token_ms - sent_ms, 0.99) FROM rt`);
console.log('table query ms', (performance.now() - t).toFixed(0));
await c.run(`SET enable_external_access = false`);
try { await c.runAndReadAll(`SELECT count(*) FROM rv`); console.log('view after lock OK'); } catch (e) { console.log('view after lock FAIL', String(e).split('\n')[0]); }

/**
 * GPU telemetry from `nvidia-smi` when infermeter runs on the GPU host: each scrape runs
 * `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` and writes the answer as DCGM-named
 * Prometheus text, so it is read through the DCGM map like an exporter would be.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const NVIDIA_SMI_QUERY = 'index,utilization.gpu,memory.used,power.draw';

/** The nvidia-smi executable on `envPath` (a PATH value), or null. */
export function findNvidiaSmi(envPath: string | undefined): string | null {
  for (const dir of (envPath ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, 'nvidia-smi');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** CSV rows `index, util %, memory MiB, power W` → DCGM-named Prometheus text ([N/A] values skipped). */
export function nvidiaSmiToExposition(csv: string): string {
  let out = '';
  for (const line of csv.split('\n')) {
    const cols = line.split(',').map((c) => c.trim());
    if (cols.length < 4 || !/^\d+$/.test(cols[0] as string)) continue;
    const [gpu, util, mem, power] = cols as [string, string, string, string];
    const put = (name: string, v: string) => {
      if (v !== '' && Number.isFinite(Number(v))) out += `${name}{gpu="${gpu}"} ${Number(v)}\n`;
    };
    put('DCGM_FI_DEV_GPU_UTIL', util);
    put('DCGM_FI_DEV_FB_USED', mem);
    put('DCGM_FI_DEV_POWER_USAGE', power);
  }
  return out;
}

export function sampleNvidiaSmi(bin: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(bin, [`--query-gpu=${NVIDIA_SMI_QUERY}`, '--format=csv,noheader,nounits'], { timeout: timeoutMs }, (err, stdout) => {
      if (err) reject(err);
      else resolve(nvidiaSmiToExposition(stdout));
    });
  });
}

/** The GPUs' identity (name, driver, framebuffer size, UUID), queried once per run for its environment fingerprint. */
export const NVIDIA_SMI_IDENTITY_QUERY = 'index,name,driver_version,memory.total,uuid';

const label = (v: string): string => v.replace(/["\\\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

/** CSV rows `index, name, driver, memory MiB, uuid` → DCGM-named text (DCGM_FI_DEV_FB_TOTAL with the exporter's labels). */
export function nvidiaSmiIdentityToExposition(csv: string): string {
  let out = '';
  for (const line of csv.split('\n')) {
    const cols = line.split(',').map((c) => c.trim());
    if (cols.length < 5 || !/^\d+$/.test(cols[0] as string)) continue;
    const [gpu, name, driver, mem, uuid] = cols as [string, string, string, string, string];
    const labels = `gpu="${gpu}",UUID="${label(uuid)}",modelName="${label(name)}",DCGM_FI_DRIVER_VERSION="${label(driver)}"`;
    out += `DCGM_FI_DEV_FB_TOTAL{${labels}} ${mem !== '' && Number.isFinite(Number(mem)) ? Number(mem) : 'NaN'}\n`;
  }
  return out;
}

export function sampleNvidiaSmiIdentity(bin: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(bin, [`--query-gpu=${NVIDIA_SMI_IDENTITY_QUERY}`, '--format=csv,noheader,nounits'], { timeout: timeoutMs }, (err, stdout) => {
      if (err) reject(err);
      else resolve(nvidiaSmiIdentityToExposition(stdout));
    });
  });
}

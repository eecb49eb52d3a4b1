import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findNvidiaSmi, nvidiaSmiToExposition } from '../../src/observe/nvidia-smi.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('nvidia-smi sampling', () => {
  it('turns its CSV into DCGM-named samples, skipping [N/A]', () => {
    expect(nvidiaSmiToExposition('0, 55, 1024, 250.5\n1, 65, 2048, [N/A]\nNo devices were found\n')).toBe(
      'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 55\nDCGM_FI_DEV_FB_USED{gpu="0"} 1024\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} 250.5\n' +
        'DCGM_FI_DEV_GPU_UTIL{gpu="1"} 65\nDCGM_FI_DEV_FB_USED{gpu="1"} 2048\n',
    );
  });

  it('is used when on PATH and the target is on this host', async () => {
    const dir = tempDir('smi');
    const bin = join(dir, 'nvidia-smi');
    // a stand-in with the real tool's output format for two GPUs
    writeFileSync(bin, '#!/bin/sh\nprintf "0, 55, 1024, 250.5\\n1, 65, 2048, 300\\n"\n');
    chmodSync(bin, 0o755);
    expect(findNvidiaSmi(`/nonexistent:${dir}`)).toBe(bin);
    const out = await runCli(
      ['run', '--num-prompts', '4', '--request-rate', 'inf', '--random-input-len', '16', '--random-output-len', '4', '--json', '--no-save', '--progress', 'none', '--workers', '0'],
      { PATH: `${dir}:${process.env.PATH ?? ''}` },
    );
    const server = (JSON.parse(out.stdout) as RunResult).server;
    const smi = server?.sources.find((s) => s.url === 'nvidia-smi');
    expect(smi?.scrapes).toBeGreaterThan(0);
    expect(smi?.engines).toEqual(['dcgm']);
    // power comes only from nvidia-smi (the simulator exports none): 250.5 + 300 W
    expect(server?.series.gpu_power_w?.mean).toBe(550.5);
  });
});

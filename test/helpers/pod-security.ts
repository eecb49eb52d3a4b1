/**
 * The "restricted" Pod Security Standard as a check on a pod spec: every control of the
 * Baseline and Restricted profiles as the standard lists them
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/, the policy the
 * PodSecurity admission controller enforces with `pod-security.kubernetes.io/enforce: restricted`).
 * Returns what a namespace enforcing it would reject, one line per violation; empty: admitted.
 */
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Baseline: capabilities a container may add. */
const BASELINE_CAPS = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
/** Baseline: the safe sysctls. */
const SAFE_SYSCTLS = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** Restricted: the volume types allowed. */
const RESTRICTED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

export function restrictedViolations(pod: Obj): string[] {
  const out: string[] = [];
  const psc: Obj = pod.securityContext ?? {};
  const containers: Obj[] = [...(pod.containers ?? []), ...(pod.initContainers ?? []), ...(pod.ephemeralContainers ?? [])];
  const each = (what: string, bad: (c: Obj, sc: Obj) => boolean) => {
    for (const c of containers) if (bad(c, c.securityContext ?? {})) out.push(`${what} (container ${c.name})`);
  };

  // ---- Baseline ----
  if (psc.windowsOptions?.hostProcess === true) out.push('HostProcess: pod windowsOptions.hostProcess');
  each('HostProcess: windowsOptions.hostProcess', (_c, sc) => sc.windowsOptions?.hostProcess === true);
  for (const f of ['hostNetwork', 'hostPID', 'hostIPC']) if (pod[f] === true) out.push(`Host namespaces: ${f}`);
  each('Privileged containers: privileged', (_c, sc) => sc.privileged === true);
  each('Capabilities: adds one beyond the baseline list', (_c, sc) => (sc.capabilities?.add ?? []).some((cap: string) => !BASELINE_CAPS.has(cap)));
  for (const v of pod.volumes ?? []) if (v.hostPath) out.push(`HostPath volumes: ${v.name}`);
  each('Host ports: hostPort', (c) => (c.ports ?? []).some((p: Obj) => p.hostPort !== undefined && p.hostPort !== 0));
  const apparmorOk = (p: Obj | undefined) => p === undefined || p.type === 'RuntimeDefault' || p.type === 'Localhost';
  if (!apparmorOk(psc.appArmorProfile)) out.push('AppArmor: pod profile');
  each('AppArmor: profile', (_c, sc) => !apparmorOk(sc.appArmorProfile));
  const seLinuxOk = (o: Obj | undefined) => o === undefined || (SELINUX_TYPES.has(o.type ?? '') && o.user === undefined && o.role === undefined);
  if (!seLinuxOk(psc.seLinuxOptions)) out.push('SELinux: pod seLinuxOptions');
  each('SELinux: seLinuxOptions', (_c, sc) => !seLinuxOk(sc.seLinuxOptions));
  each('/proc mount type: procMount', (_c, sc) => sc.procMount !== undefined && sc.procMount !== 'Default');
  if (psc.seccompProfile?.type === 'Unconfined') out.push('Seccomp: pod profile Unconfined');
  each('Seccomp: profile Unconfined', (_c, sc) => sc.seccompProfile?.type === 'Unconfined');
  for (const s of psc.sysctls ?? []) if (!SAFE_SYSCTLS.has(s.name)) out.push(`Sysctls: ${s.name}`);

  // ---- Restricted ----
  for (const v of pod.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (!type || !RESTRICTED_VOLUMES.has(type)) out.push(`Volume types: ${v.name} is ${type ?? 'untyped'}`);
  }
  each('Privilege escalation: allowPrivilegeEscalation is not false', (_c, sc) => sc.allowPrivilegeEscalation !== false);
  // Non-root: the pod says so and no container says otherwise, or every container says so.
  each('Running as non-root: runAsNonRoot', (_c, sc) => sc.runAsNonRoot === false || (sc.runAsNonRoot !== true && psc.runAsNonRoot !== true));
  if (psc.runAsUser === 0) out.push('Running as non-root user: pod runAsUser 0');
  each('Running as non-root user: runAsUser 0', (_c, sc) => sc.runAsUser === 0);
  const seccompSet = (p: Obj | undefined) => p?.type === 'RuntimeDefault' || p?.type === 'Localhost';
  each('Seccomp: no RuntimeDefault or Localhost profile', (_c, sc) => (sc.seccompProfile ? !seccompSet(sc.seccompProfile) : !seccompSet(psc.seccompProfile)));
  each('Capabilities: drop does not include ALL', (_c, sc) => !(sc.capabilities?.drop ?? []).includes('ALL'));
  each('Capabilities: adds one other than NET_BIND_SERVICE', (_c, sc) => (sc.capabilities?.add ?? []).some((cap: string) => cap !== 'NET_BIND_SERVICE'));
  return out;
}

/** The pod spec inside a workload object (Job, Deployment, …), or a Pod's own spec; null for other kinds. */
export function podSpecOf(o: Obj): Obj | null {
  if (o.kind === 'Pod') return o.spec;
  return o.spec?.template?.spec ?? null;
}

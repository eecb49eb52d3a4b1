/**
 * Binary min-heap of items keyed by `due` (ms). Used by the real-time drivers to find every
 * stream due at a tick in one pass: pop while top.due ≤ now. O(log n) push/pop, no allocation
 * beyond the backing array.
 *
 *            [0] earliest
 *          /          \
 *       [1]            [2]        children of i: 2i+1, 2i+2; parent: (i−1) >> 1
 */
export interface Due {
  due: number;
}

export class DueHeap<T extends Due> {
  private readonly a: T[] = [];

  get size(): number {
    return this.a.length;
  }

  peek(): T | undefined {
    return this.a[0];
  }

  push(item: T): void {
    const a = this.a;
    let i = a.length;
    a.push(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p] as T;
      if (parent.due <= item.due) break;
      a[i] = parent;
      i = p;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    const n = a.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (a[r] as T).due < (a[l] as T).due ? r : l;
      const child = a[c] as T;
      if (child.due >= last.due) break;
      a[i] = child;
      i = c;
    }
    a[i] = last;
    return top;
  }

  clear(): void {
    this.a.length = 0;
  }
}

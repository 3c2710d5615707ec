import { LoopAdmission, taskFairKey } from './fair-dispatch';

describe('LoopAdmission', () => {
  it('lets fewer tasks run while the event loop is saturated, and more again as it has room', () => {
    const admission = new LoopAdmission(16, 0.85);
    try {
      expect(admission.admit(15)).toBe(true);
      expect(admission.admit(16)).toBe(false);
      // Saturated: cut by a fifth per sample, down to 1 at least.
      expect([0.95, 0.95, 0.95].map((u) => admission.adjust(u))).toEqual([12, 9, 7]);
      expect(admission.admit(7)).toBe(false);
      expect(admission.admit(6)).toBe(true);
      for (let i = 0; i < 20; i++) {
        admission.adjust(1);
      }
      expect(admission.admit(1)).toBe(false);
      expect(admission.admit(0)).toBe(true);
      // Room again: raised by one per sample, but only while the limit is what holds tasks back.
      admission.admit(1);
      expect(admission.adjust(0.3)).toBe(2);
      admission.admit(0);
      expect(admission.adjust(0.3)).toBe(2);
      for (let i = 0; i < 30; i++) {
        admission.admit(16);
        admission.adjust(0.3);
      }
      expect(admission.admit(15)).toBe(true);
      expect(admission.admit(16)).toBe(false);
    } finally {
      admission.stop();
    }
  });

  it('is off with a threshold of 1: every slot is admitted', () => {
    const admission = new LoopAdmission(4, 1);
    expect(admission.admit(3)).toBe(true);
    expect(admission.admit(4)).toBe(false);
    admission.stop();
  });
});

describe('taskFairKey', () => {
  it("reads a task's tenant and priority, and treats a task without them as interactive of no tenant", () => {
    expect(taskFairKey({ tenant_id: 't-1', priority: 'batch' })).toEqual({
      tenant: 't-1',
      priority: 'batch',
    });
    expect(taskFairKey({ tenant_id: 't-1', priority: 'urgent' })).toEqual({
      tenant: 't-1',
      priority: 'interactive',
    });
    expect(taskFairKey(null)).toEqual({ tenant: '', priority: 'interactive' });
  });
});

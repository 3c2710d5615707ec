import { useEffect, useRef, useState } from 'react';

/** At most one render per this many ms while typing. */
const THROTTLE_MS = 40;
/** A frame later than this is not waited for. */
const STARVED_MS = 100;

/**
 * The text shown of a growing `target`, typed out: a requestAnimationFrame loop reveals a few
 * characters a frame (more when it falls behind, so it never lags far) and renders at most every
 * {@link THROTTLE_MS}. What is already there when the view mounts (a transcript restored after a
 * reload) is shown at once, not typed again. A target that is no extension of what is shown (an
 * answer restarted) is followed from their common prefix. A hidden tab shows the target.
 */
export function useTypewriter(target: string): string {
  const [shown, setShown] = useState(target);
  const shownRef = useRef(target);
  const targetRef = useRef(target);
  targetRef.current = target;
  useEffect(() => {
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastRender = 0;
    // The next tick on the next animation frame — or a timer, where frames are starved (a
    // background page that is not reported hidden).
    const schedule = () => {
      frame = requestAnimationFrame(tick);
      timer = setTimeout(() => tick(performance.now()), STARVED_MS);
    };
    const tick = (now: number) => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      const goal = targetRef.current;
      let cur = shownRef.current;
      if (!goal.startsWith(cur)) {
        let i = 0;
        while (i < cur.length && i < goal.length && cur[i] === goal[i]) {
          i++;
        }
        cur = goal.slice(0, i);
      }
      if (cur.length < goal.length) {
        const step = Math.max(1, Math.ceil((goal.length - cur.length) / 12));
        cur = goal.slice(0, cur.length + step);
      }
      shownRef.current = cur;
      if (now - lastRender >= THROTTLE_MS || cur === goal) {
        lastRender = now;
        setShown(cur);
      }
      schedule();
    };
    schedule();
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  // A hidden tab gets no animation frames: it shows the whole text at once.
  return document.hidden ? target : shown;
}

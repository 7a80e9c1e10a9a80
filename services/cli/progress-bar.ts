/**
 * A one-line progress bar on a stream (stderr, so stdout keeps only the command's answer). On a
 * terminal it redraws in place; otherwise it writes a line at each tenth, so logs stay short.
 */
export function progressBar(out: NodeJS.WriteStream, label: string, unit: string) {
  const width = 30;
  let lastTenth = -1;
  const started = Date.now();
  const line = (done: number, total: number) => {
    const ratio = total === 0 ? 1 : done / total;
    const filled = Math.round(ratio * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${unit} ${Math.round(ratio * 100)}% ${secs}s`;
  };
  return {
    update: (done: number, total: number) => {
      if (out.isTTY) {
        out.write(`\r${line(done, total)}`);
        return;
      }
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        out.write(`${line(done, total)}\n`);
      }
    },
    done: () => {
      if (out.isTTY) out.write('\n');
    },
  };
}

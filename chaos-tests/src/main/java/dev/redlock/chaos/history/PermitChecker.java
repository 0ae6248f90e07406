package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Safety of a semaphore: for each semaphore (an op's {@link Op#lock()}), at no instant are more than {@code permits}
 * OK ops' holding windows ({@link Op#windowStart()} to {@link Op#windowEnd()}) open at once. Windows that merely touch
 * (one ends exactly where the next starts) do not overlap.
 *
 * <p>It sweeps the window boundaries in time order, ends before starts at the same instant, counting open windows;
 * each time the count goes above {@code permits} it reports the windows open then. With {@code permits} = 1 it judges
 * what {@link MutualExclusionChecker} judges.
 */
public final class PermitChecker implements Checker {

  /** This checker's name in its results. */
  public static final String NAME = "permits";

  private final int permits;

  /**
   * Creates the checker.
   *
   * @param permits how many holders a semaphore may have at once, at least 1
   */
  public PermitChecker(int permits) {
    if (permits < 1) {
      throw new IllegalArgumentException("permits: must be at least 1, was " + permits);
    }
    this.permits = permits;
  }

  /**
   * Checks every semaphore's OK windows.
   *
   * @param history the run
   * @return VALID when no instant has more than {@code permits} open windows, INVALID listing each excess
   */
  @Override
  public CheckResult check(History history) {
    Map<String, List<Op>> bySemaphore = new TreeMap<>();
    int windows = 0;
    for (Op op : history.ops()) {
      if (op.outcome() == Op.Outcome.OK && !op.windowEmpty()) {
        windows++;
        bySemaphore.computeIfAbsent(op.lock(), k -> new ArrayList<>()).add(op);
      }
    }
    List<String> violations = new ArrayList<>();
    int most = 0;
    for (Map.Entry<String, List<Op>> entry : bySemaphore.entrySet()) {
      // +1 at a start, -1 at an end; at one instant ends come first (touching windows are fine).
      List<long[]> edges = new ArrayList<>();
      List<Op> ops = entry.getValue();
      for (int i = 0; i < ops.size(); i++) {
        edges.add(new long[] {ops.get(i).windowStart(), 1, i});
        edges.add(new long[] {ops.get(i).windowEnd(), -1, i});
      }
      edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      java.util.Set<Integer> open = new java.util.LinkedHashSet<>();
      for (long[] e : edges) {
        if (e[1] < 0) {
          open.remove((int) e[2]);
          continue;
        }
        open.add((int) e[2]);
        most = Math.max(most, open.size());
        if (open.size() > permits) {
          StringBuilder v = new StringBuilder("semaphore \"").append(entry.getKey()).append("\" held ")
              .append(open.size()).append(" times at once (").append(permits).append(" permits):");
          for (int i : open) {
            v.append(" client ").append(ops.get(i).client()).append(' ').append(ops.get(i));
          }
          violations.add(v.toString());
        }
      }
    }
    String summary = windows + " holding windows on " + bySemaphore.size() + " semaphores checked, at most "
        + most + " held at once, " + violations.size() + " excesses";
    return violations.isEmpty()
        ? CheckResult.valid(NAME, summary)
        : CheckResult.invalid(NAME, violations, summary);
  }
}

package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Safety: for each lock, no two OK ops' holding windows ({@link Op#windowStart()} to {@link
 * Op#windowEnd()}) overlap. Windows that merely touch (one ends exactly where the next starts) are
 * fine.
 *
 * <p>Per lock it sweeps the windows in order of start, remembering the window that reaches
 * furthest so far; every window that starts before that one ends is an overlap. So each offending
 * op is reported once, against the earlier window reaching furthest, which also catches a window
 * nested wholly inside another. Ops with empty windows are skipped but counted in the summary.
 */
public final class MutualExclusionChecker implements Checker {

  /** This checker's name in its results. */
  public static final String NAME = "mutual-exclusion";

  /** Creates the checker; it has no settings. */
  public MutualExclusionChecker() {}

  /**
   * Checks every lock's OK windows for overlaps.
   *
   * @param history the run
   * @return VALID when no windows overlap, INVALID listing every overlap otherwise
   */
  @Override
  public CheckResult check(History history) {
    // TreeMap: locks are reported in a stable order, so two runs of the checker read the same.
    Map<String, List<Op>> byLock = new TreeMap<>();
    int empty = 0;
    int windows = 0;
    for (Op op : history.ops()) {
      if (op.outcome() != Op.Outcome.OK) {
        continue;
      }
      if (op.windowEmpty()) {
        empty++;
        continue;
      }
      windows++;
      byLock.computeIfAbsent(op.lock(), k -> new ArrayList<>()).add(op);
    }

    List<String> violations = new ArrayList<>();
    for (Map.Entry<String, List<Op>> entry : byLock.entrySet()) {
      List<Op> sorted = entry.getValue();
      sorted.sort(
          Comparator.comparingLong(Op::windowStart)
              .thenComparingLong(Op::windowEnd)
              .thenComparingInt(Op::client));
      Op furthest = null;
      for (Op op : sorted) {
        if (furthest != null && op.windowStart() < furthest.windowEnd()) {
          long overlap = Math.min(op.windowEnd(), furthest.windowEnd()) - op.windowStart();
          violations.add(
              "lock \""
                  + entry.getKey()
                  + "\" held twice for "
                  + Nanos.ms(overlap)
                  + ": client "
                  + furthest.client()
                  + " "
                  + furthest
                  + " overlaps client "
                  + op.client()
                  + " "
                  + op);
        }
        if (furthest == null || op.windowEnd() > furthest.windowEnd()) {
          furthest = op;
        }
      }
    }

    String summary =
        windows
            + " holding windows on "
            + byLock.size()
            + " locks checked, "
            + empty
            + " empty windows ignored, "
            + violations.size()
            + " overlaps";
    return violations.isEmpty()
        ? CheckResult.valid(NAME, summary)
        : CheckResult.invalid(NAME, violations, summary);
  }
}

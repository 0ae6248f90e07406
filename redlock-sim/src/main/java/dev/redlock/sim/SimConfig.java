package dev.redlock.sim;

/**
 * One kind of simulated cluster: which faults the seed may draw, and whether they stay inside the assumptions under
 * which the library promises its guarantees.
 *
 * @param name how the configuration is named in the summary line
 * @param quarantine whether restart protection is on
 * @param trustPersistent whether nodes that persist every write are trusted across restarts
 * @param driftOutside whether clocks may drift beyond the configured drift factor
 * @param majorityLoss whether a majority of nodes may lose their data at once
 * @param insideAssumptions whether the checkers must find no violation (false: a negative control, which must)
 */
public record SimConfig(
        String name,
        boolean quarantine,
        boolean trustPersistent,
        boolean driftOutside,
        boolean majorityLoss,
        boolean insideAssumptions) {

    /** Every fault, inside the assumptions: clocks within the drift factor, data loss on a minority. */
    public static final SimConfig FAULTS = new SimConfig("faults", true, false, false, false, true);
    /** The same, with nodes that fsync every write trusted across restarts. */
    public static final SimConfig TRUSTED_PERSISTENCE =
            new SimConfig("trusted-persistence", true, true, false, false, true);
    /** Negative control: clocks drift beyond the drift factor. */
    public static final SimConfig DRIFT_BEYOND_FACTOR =
            new SimConfig("drift-beyond-factor", true, false, true, false, false);
    /** Negative control: restart protection off while nodes lose data. */
    public static final SimConfig NO_QUARANTINE = new SimConfig("no-quarantine", false, false, false, false, false);
    /** Negative control: a majority of nodes lose their data at once. */
    public static final SimConfig MAJORITY_LOSS = new SimConfig("majority-loss", true, false, false, true, false);

    /** Looks a configuration up by name. */
    public static SimConfig named(String name) {
        for (SimConfig c :
                new SimConfig[] {FAULTS, TRUSTED_PERSISTENCE, DRIFT_BEYOND_FACTOR, NO_QUARANTINE, MAJORITY_LOSS}) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("sim.config: unknown configuration '" + name + "'; known: faults, "
                + "trusted-persistence, drift-beyond-factor, no-quarantine, majority-loss");
    }
}

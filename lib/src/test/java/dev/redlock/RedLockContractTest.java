package dev.redlock;

/** The lock contract for RedLock (majority quorum). */
class RedLockContractTest extends LockContractTest {

    @Override
    QuorumPolicy policy() {
        return QuorumPolicy.MAJORITY;
    }
}

package dev.redlock;

/** The lock contract for MultiLock (every node). */
class MultiLockContractTest extends LockContractTest {

    @Override
    QuorumPolicy policy() {
        return QuorumPolicy.ALL;
    }
}

package demo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.RedlockClient;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

class AppTest {

    @Test
    void startsWithBootsOwnDependencyVersionsAndTakesALock() throws Exception {
        List<RedisServer> servers = new ArrayList<>();
        try {
            List<String> uris = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RedisServer s = RedisServer.start();
                servers.add(s);
                uris.add(s.uri());
            }
            try (ConfigurableApplicationContext context = SpringApplication.run(
                    App.class, "--redlock.nodes=" + String.join(",", uris), "--redlock.restart-quarantine=false")) {
                RedlockClient client = context.getBean(RedlockClient.class);
                Optional<Lease> lease = client.redLock("boot-parent-app")
                        .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10));
                assertTrue(lease.isPresent(), "a lock from a Boot application with no version overrides");
                lease.get().release();
            }
        } finally {
            servers.forEach(RedisServer::close);
        }
    }
}

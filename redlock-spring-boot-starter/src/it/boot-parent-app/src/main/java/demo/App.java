package demo;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application: the starter's auto-configuration gives it a RedlockClient bean from redlock.* properties. */
@SpringBootApplication
public class App {}

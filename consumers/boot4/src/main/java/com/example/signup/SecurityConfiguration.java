package com.example.signup;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.web.SecurityFilterChain;

// docs/dashboard.md, "Security": DocumentationSnippetsTests checks that the lines are the page's;
// DashboardSecurityTests sends a request.

@Configuration
@EnableWebSecurity
class SecurityConfiguration {

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests
				// The dashboard (/taskqueue/**) checks TASKQUEUE_VIEW and TASKQUEUE_OPERATE itself.
				.requestMatchers(HttpMethod.GET, "/actuator/taskqueue/**")
					.hasAnyAuthority("TASKQUEUE_VIEW", "TASKQUEUE_OPERATE")
				.requestMatchers("/actuator/taskqueue/**").hasAuthority("TASKQUEUE_OPERATE")
				.anyRequest().authenticated())
			.formLogin(Customizer.withDefaults());   // or httpBasic, oauth2Login, ...
		return http.build();
	}

}

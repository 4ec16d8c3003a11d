package com.example.reports

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication

@SpringBootApplication
class ReportsApplication

fun main(args: Array<String>) {
    runApplication<ReportsApplication>(*args)
}

// Command timbra runs a Mexican e-invoicing API (`timbra server`) and is the client of it.
package main

import (
	"os"
	_ "time/tzdata" // X-TIME-ZONE and --time-zone work where the system has no zone database

	"github.com/timbra-mx/timbra/commands"
)

func main() { os.Exit(commands.Main()) }

// Command timbra runs a Mexican e-invoicing API (`timbra server`) and is the client of it.
package main

import (
	"os"

	"github.com/timbra-mx/timbra/commands"
)

func main() { os.Exit(commands.Main()) }

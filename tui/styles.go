package tui

import "github.com/charmbracelet/lipgloss"

// Styles are the looks of the views (listen, inspect), built once by DefaultStyles.
type Styles struct {
	Title      lipgloss.Style
	Label      lipgloss.Style
	Connecting lipgloss.Style
	Ready      lipgloss.Style
	Banner     lipgloss.Style
	Selected   lipgloss.Style
	OK         lipgloss.Style // a 2xx forward
	Failed     lipgloss.Style // any other forward outcome
	Unverified lipgloss.Style // a signature that did not verify
	Dim        lipgloss.Style // no forward, hints
	Section    lipgloss.Style
	Status     lipgloss.Style
	Pending    lipgloss.Style // a delivery still waiting, a webhook failing
	Column     lipgloss.Style // the header of a table
	Error      lipgloss.Style // an error of the API, shown in the status line
	Prompt     lipgloss.Style // a question waiting for y or n, an input line
	Secret     lipgloss.Style // a signing secret shown once
}

// DefaultStyles are the styles of the views.
func DefaultStyles() Styles {
	return Styles{
		Title:      lipgloss.NewStyle().Bold(true),
		Label:      lipgloss.NewStyle().Faint(true),
		Connecting: lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		Ready:      lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Bold(true),
		Banner:     lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		Selected:   lipgloss.NewStyle().Reverse(true),
		OK:         lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Failed:     lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		Unverified: lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		Dim:        lipgloss.NewStyle().Faint(true),
		Section:    lipgloss.NewStyle().Bold(true).Underline(true),
		Status:     lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		Pending:    lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		Column:     lipgloss.NewStyle().Bold(true),
		Error:      lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		Prompt:     lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
		Secret:     lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Bold(true),
	}
}

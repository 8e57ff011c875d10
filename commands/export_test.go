package commands

// OpenableURL lets the black-box tests check the start-up line's address
// without listening on every interface.
var OpenableURL = openableURL
